/** A session already has a turn running; one session runs one turn at a time. */
export class TurnInProgressError extends Error {
  override readonly name = 'TurnInProgressError';
  constructor(readonly sessionId: string) {
    super(`session "${sessionId}" already has a turn in progress; wait for it to end first`);
  }
}

/** A chain was run through a turn object after its turn had ended. */
export class TurnEndedError extends Error {
  override readonly name = 'TurnEndedError';
  constructor(
    readonly sessionId: string,
    readonly turnId: string,
  ) {
    super(
      `turn "${turnId}" of session "${sessionId}" has ended; run hooks inside runtime.runTurn()`,
    );
  }
}

/** `runTurn` on a runtime after `close()`: its extensions have let go of what they held. */
export class RuntimeClosedError extends Error {
  override readonly name = 'RuntimeClosedError';
  constructor() {
    super(
      'the runtime was closed (runtime.close()); its extensions have released their resources, so load a new runtime to run more turns',
    );
  }
}
