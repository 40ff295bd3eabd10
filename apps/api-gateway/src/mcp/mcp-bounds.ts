import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/** Longest prompt argument (characters): a goal or an id, never a document (decisions.md "MCP bounds"). */
export const MCP_MAX_PROMPT_ARGUMENT_CHARS = 2_000;
/** Longest part of a client-sent name (tool, resource, prompt, argument) that an answer repeats. */
export const MCP_MAX_ECHOED_CHARS = 100;
/** Unknown tool arguments named in an error at most; the rest are counted. */
const MAX_NAMED_ARGUMENTS = 5;

/** A name the client sent, as an answer may repeat it: at most {@link MCP_MAX_ECHOED_CHARS} characters, then `…`. */
export function echoed(name: unknown): string {
  const text = typeof name === 'string' ? name : String(name);
  return text.length > MCP_MAX_ECHOED_CHARS ? `${text.slice(0, MCP_MAX_ECHOED_CHARS)}… (${text.length} characters)` : text;
}

/**
 * Refuses a prompt whose declared arguments are longer than {@link MCP_MAX_PROMPT_ARGUMENT_CHARS}
 * (JSON-RPC invalid params, naming the argument): a prompt's text is built from them, so its size
 * is bounded by the declaration. Undeclared arguments are not used, and not checked.
 */
export function checkPromptArguments(declared: ReadonlyArray<{ name: string }>, args: Record<string, string>): void {
  const long = declared.filter((a) => typeof args[a.name] === 'string' && args[a.name].length > MCP_MAX_PROMPT_ARGUMENT_CHARS);
  if (long.length > 0)
    throw new McpError(
      ErrorCode.InvalidParams,
      `Prompt arguments must be at most ${MCP_MAX_PROMPT_ARGUMENT_CHARS} characters; shorten ${long.map((a) => a.name).join(', ')}`,
    );
}

/** The field errors of unknown tool arguments: at most five named (each shortened), the rest counted. */
export function boundedUnknownArguments(unknown: readonly string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const key of unknown.slice(0, MAX_NAMED_ARGUMENTS)) errors[echoed(key)] = 'is not an argument of this tool';
  if (unknown.length > MAX_NAMED_ARGUMENTS)
    errors['(more)'] =
      `${unknown.length - MAX_NAMED_ARGUMENTS} more arguments are not arguments of this tool; tools/list gives its input schema`;
  return errors;
}
