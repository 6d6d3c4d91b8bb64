/** Model requests per turn (or per subagent run) at most, unless the caller says. */
export const DEFAULT_MAX_ITERATIONS = 20;
