/** Where a command writes: its stdout and stderr lines. */
export interface CliIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** What a command is run with: its positional arguments and parsed flags, and where it writes. */
export interface CommandContext extends CliIo {
  args: string[];
  flags: Record<string, string | boolean | undefined>;
}
