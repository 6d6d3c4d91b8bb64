import { installPeerAdvice, type OptionalPeer, optionalPeer } from '../../../optional-peers.js';
import type { Check } from './check.js';

/** What this install and project would use each optional peer for (src/optional-peers.ts). */
export interface PeerNeeds {
  /** The modules of the project's own code it would bundle (src/trust/project-code-entries.ts), as shown. */
  projectCode: readonly string[];
  /** workflow-guard is enabled: its shell calls run in the OS sandbox. */
  workflowGuard: boolean;
  /** The extensions that failed to load, and why. */
  failed: ReadonlyArray<{ name: string; reason: string }>;
}

/**
 * One line per optional peer: installed with its version, or missing (or another version) with
 * the command that installs it, and whether anything here needs it. Missing and needed is a
 * problem: project code without rolldown cannot be trusted or loaded (an error); workflow-guard
 * without the sandbox runtime refuses the shell commands it cannot prove read-only (a warning, as
 * a sandbox that cannot run here is). Missing and not needed is worth knowing only.
 */
export function optionalPeerChecks(needs: PeerNeeds): Check[] {
  const code = needs.projectCode;
  const named =
    code.length > 3
      ? `${code.slice(0, 3).join(', ')} and ${code.length - 3} more`
      : code.join(', ');
  return [
    peerCheck(optionalPeer('rolldown'), {
      use: code.length > 0 ? `bundles this project's code: ${named}` : 'bundles project code',
      need:
        code.length > 0
          ? {
              level: 'error',
              who: `this project's code needs it (${named}: bundled with it to be trusted and loaded)`,
            }
          : undefined,
      nobody:
        "nothing here needs it (project code, in .hermes/extensions/, a code config or the project config's paths, is bundled with it)",
    }),
    peerCheck(optionalPeer('@anthropic-ai/sandbox-runtime'), {
      use: "workflow-guard's OS sandbox for shell commands",
      need: needs.workflowGuard
        ? {
            level: 'warning',
            who: 'workflow-guard (enabled) needs it for its OS sandbox, and without it refuses the shell commands it cannot prove read-only',
          }
        : undefined,
      nobody: "nothing enabled needs it (workflow-guard's OS sandbox does)",
    }),
    ...(['@cedar-policy/cedar-wasm', '@open-policy-agent/opa-wasm'] as const).map((name) => {
      const peer = optionalPeer(name);
      // The load error of a declared policy names the engine it could not use (src/declared/).
      const lacking = peer.usable ? [] : needs.failed.filter((e) => e.reason.includes(name));
      return peerCheck(peer, {
        use:
          name === '@cedar-policy/cedar-wasm'
            ? 'evaluates declared Cedar policies'
            : 'evaluates declared Rego policies compiled to .wasm',
        need:
          lacking.length > 0
            ? {
                level: 'error',
                who: `${lacking.map((e) => e.name).join(', ')} cannot load without it, and tool calls are refused`,
              }
            : undefined,
        nobody: `only declared ${name === '@cedar-policy/cedar-wasm' ? 'Cedar policies' : 'Rego bundles (.wasm)'} need it (docs/policies.md)`,
      });
    }),
    peerCheck(optionalPeer('@modelcontextprotocol/sdk'), {
      use: '`hermes mcp proxy` speaks MCP with it',
      // A proxy that cannot start says so to the client that starts it.
      need: undefined,
      nobody: 'only `hermes mcp proxy` needs it (docs/mcp.md)',
    }),
  ];
}

function peerCheck(
  peer: OptionalPeer,
  say: { use: string; need: { level: Check['level']; who: string } | undefined; nobody: string },
): Check {
  const subject = peer.name;
  if (peer.usable) {
    return { level: 'ok', subject, message: `${peer.installed} installed (${say.use})` };
  }
  const state =
    peer.installed === undefined
      ? 'not installed'
      : `${peer.installed} installed, not ${peer.wanted}`;
  return {
    level: say.need?.level ?? 'info',
    subject,
    message: `${state}; ${say.need?.who ?? say.nobody}`,
    fix: installPeerAdvice(peer.name),
  };
}
