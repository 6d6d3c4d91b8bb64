/**
 * The seccomp filter of workflow-guard's own bubblewrap line (bwrap-line.ts): a small classic BPF
 * program, handed to bubblewrap (`--seccomp`), that makes `socket(AF_UNIX, …)` fail with EPERM.
 *
 * Why: a read-only mount does not stop `connect()` to a Unix socket there (the kernel checks a
 * socket file for write permission, and a read-only file system refuses writes only to files,
 * folders and links), and a network namespace does not separate sockets named by a path. Without
 * this, a sandboxed command could reach any program listening on one — this framework's own
 * daemon, a Docker daemon, an SSH agent, the session bus — and have it do what the sandbox
 * forbids. A socket pair made inside (`socketpair`) reaches nothing outside, and stays allowed.
 *
 * `io_uring_setup` is refused too: io_uring can open sockets without the `socket` system call,
 * where no seccomp filter sees them. A system call of another ABI (x32, or 32-bit code on a
 * 64-bit kernel, with other numbers) is refused whole rather than read by the wrong table.
 */

/** What the filter knows of each architecture it supports (Linux's `uapi` headers). */
const ARCHITECTURES: Record<string, { audit: number; socket: number; x32?: boolean }> = {
  // AUDIT_ARCH_X86_64; __NR_socket 41; x32 numbers carry bit 30 (__X32_SYSCALL_BIT).
  x64: { audit: 0xc000003e, socket: 41, x32: true },
  // AUDIT_ARCH_AARCH64; __NR_socket 198 (the generic table).
  arm64: { audit: 0xc00000b7, socket: 198 },
};

/** `io_uring_setup`, the same number on every architecture (the unified table since 5.1). */
const IO_URING_SETUP = 425;
const AF_UNIX = 1;
const EPERM = 1;

// Classic BPF opcodes (linux/filter.h) and seccomp's answers (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
// Offsets in `struct seccomp_data`: nr, arch, then args[6] of 64 bits from 16 (the low half
// first on these little-endian machines; `socket` reads its domain as an int).
const NR = 0;
const ARCH = 4;
const ARG0 = 16;

type Step =
  | { load: number }
  | { ifEqual: number; yes: 'deny' | 'allow' | 'next'; no: 'deny' | 'allow' | 'next' }
  | { ifAtLeast: number; yes: 'deny' }
  | { ret: 'allow' | 'deny' };

/** The filter for `process.arch`, or undefined on an architecture it does not know. */
export function unixBlockFilter(arch: string = process.arch): Buffer | undefined {
  const known = ARCHITECTURES[arch];
  if (known === undefined) return undefined;
  const steps: Step[] = [
    { load: ARCH },
    { ifEqual: known.audit, yes: 'next', no: 'deny' },
    { load: NR },
    ...(known.x32 === true ? [{ ifAtLeast: 0x40000000, yes: 'deny' as const }] : []),
    { ifEqual: IO_URING_SETUP, yes: 'deny', no: 'next' },
    { ifEqual: known.socket, yes: 'next', no: 'allow' },
    { load: ARG0 },
    { ifEqual: AF_UNIX, yes: 'deny', no: 'allow' },
    { ret: 'allow' },
    { ret: 'deny' },
  ];
  const allowAt = steps.length - 2;
  const denyAt = steps.length - 1;
  const jump = (from: number, to: 'deny' | 'allow' | 'next') =>
    to === 'next' ? 0 : (to === 'allow' ? allowAt : denyAt) - from - 1;
  const program = Buffer.alloc(steps.length * 8);
  steps.forEach((step, at) => {
    let code: number;
    let jt = 0;
    let jf = 0;
    let k: number;
    if ('load' in step) {
      code = LD_W_ABS;
      k = step.load;
    } else if ('ifEqual' in step) {
      code = JEQ_K;
      jt = jump(at, step.yes);
      jf = jump(at, step.no);
      k = step.ifEqual;
    } else if ('ifAtLeast' in step) {
      code = JGE_K;
      jt = jump(at, step.yes);
      k = step.ifAtLeast;
    } else {
      code = RET_K;
      k = step.ret === 'allow' ? RET_ALLOW : RET_ERRNO | EPERM;
    }
    // struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }, in the machine's byte order.
    program.writeUInt16LE(code, at * 8);
    program.writeUInt8(jt, at * 8 + 2);
    program.writeUInt8(jf, at * 8 + 3);
    program.writeUInt32LE(k >>> 0, at * 8 + 4);
  });
  return program;
}
