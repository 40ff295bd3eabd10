import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { IsInt, Max, Min } from 'class-validator';
import { parseContract } from '@crm/contracts';
import { OperatorGuard } from './operator.guard';
import { setClockOffset } from './test-clock';

class SetClockRequest {
  @IsInt() @Min(-10 * 365 * 86400) @Max(10 * 365 * 86400) offset_seconds: number;
}

/** Registered only when ENABLE_TEST_CLOCK=true (see app.module.ts). */
@Controller('operator/test/clock')
@UseGuards(OperatorGuard)
export class TestClockController {
  @Post()
  set(@Body() body: unknown): { now: number } {
    return { now: setClockOffset(parseContract(SetClockRequest, body).offset_seconds) };
  }
}
