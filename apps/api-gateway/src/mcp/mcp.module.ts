import { Module } from '@nestjs/common';
import { ApiModule } from '../api/api.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

/** The MCP endpoint for AI assistants, over the REST API's pipeline. */
@Module({
  imports: [ApiModule],
  controllers: [McpController],
  providers: [McpService],
})
export class McpModule {}
