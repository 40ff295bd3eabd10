/** Where the gateway serves the MCP endpoint (Streamable HTTP), relative to its public origin. */
export const MCP_PATH = '/mcp';

/** RFC 9728 Protected Resource Metadata, at the root and with the resource's path appended. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** The scope an assistant asks for by default (the PRM's `scopes_supported`). */
export const MCP_DEFAULT_SCOPE = 'mcp';

/**
 * The MCP resource identifier (RFC 8707) of a regional API: the origin of its base URL plus
 * {@link MCP_PATH}. `https://eu.example.com/api/v3` gives `https://eu.example.com/mcp`. The
 * auth-server issues tokens for it (audience = the identifier) and the gateway accepts only those
 * at /mcp.
 */
export function mcpResourceUrl(baseUrl: string): string {
  return `${new URL(baseUrl).origin}${MCP_PATH}`;
}
