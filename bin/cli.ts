/**
 * What every command-line tool of bin/ does with its arguments, the same way: `--help` or `-h`
 * prints the usage on stdout and exits 0; an argument it does not take, or a missing or wrong
 * value, is one line on stderr naming it and pointing at `--help`, and exit 2 (node's parseArgs
 * throws a TypeError whose stack a user would otherwise see). Failures past the arguments (no
 * runtime running, AWS refusing) are the tools' own: one line and exit 1.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface Cli {
  /** `npm run api-key`: how the tool is run, the start of every error line */
  name: string;
  /** the whole usage text, printed for --help */
  usage: string;
}

/** One line on stderr and exit 2: a wrong argument. */
export function usageError(cli: Cli, message: string): never {
  console.error(`${cli.name}: ${message} (${cli.name} -- --help for usage)`);
  process.exit(2);
}

/** parseArgs with --help / -h and one-line errors (the top of this file). */
export function parseCli<T extends Options>(cli: Cli, options: T, args: string[] = process.argv.slice(2)) {
  const config = {
    args,
    options: { ...options, help: { type: 'boolean', short: 'h' } as const },
    allowPositionals: true as const,
  };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    // node's messages are one sentence and then advice about '--' that does not apply here
    const message = error instanceof Error ? error.message.split('. ')[0].replace(/\.$/, '') : String(error);
    if (args.includes('--help') || args.includes('-h')) printUsage(cli);
    usageError(cli, message.charAt(0).toLowerCase() + message.slice(1));
  }
  if ((parsed.values as { help?: boolean }).help) printUsage(cli);
  return parsed;
}

/** The one command of `commands` that the arguments name, and nothing after it; else a usage error. */
export function commandOf<C extends string>(cli: Cli, positionals: string[], commands: readonly C[]): C {
  const [command, extra] = positionals;
  if (!command) usageError(cli, `a command is needed: ${commands.join(', ')}`);
  if (!commands.includes(command as C)) usageError(cli, `unknown command "${command}"`);
  if (extra !== undefined) usageError(cli, `unexpected argument "${extra}"`);
  return command as C;
}

function printUsage(cli: Cli): never {
  console.log(cli.usage);
  process.exit(0);
}

/** The tool's last resort: what went wrong in one line, exit 1 (a stack trace says nothing to its user). */
export function failed(cli: Cli): (error: unknown) => never {
  return (error) => {
    console.error(`${cli.name}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  };
}
