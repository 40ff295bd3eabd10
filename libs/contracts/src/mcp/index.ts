export * from './mcp.constants';
export * from './mcp-tools';
