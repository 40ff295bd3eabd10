import 'reflect-metadata';
import { Controller, Module, UseGuards, UseInterceptors, UsePipes, type CanActivate, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { createLogger } from '@crm/observability';
import { LOGGER } from '@crm/service-kit';
import { RpcArgumentContext, discoverRpcHandlers } from './rpc-handlers';
import { RpcCaller } from './rpc-params.decorators';
import { RpcReplyInterceptor } from './rpc-reply.interceptor';

class AllowAll implements CanActivate {
  canActivate() {
    return true;
  }
}

async function discover(controller: Type<unknown>) {
  @Module({ controllers: [controller], providers: [{ provide: LOGGER, useValue: createLogger('rpc-handlers-test', 'silent') }] })
  class TestModule {}
  const app = await NestFactory.createApplicationContext(TestModule, { logger: false });
  try {
    return discoverRpcHandlers(app);
  } finally {
    await app.close();
  }
}

describe('discoverRpcHandlers', () => {
  it('finds each @MessagePattern method and computes its arguments from its decorators', async () => {
    @Controller()
    @UseInterceptors(RpcReplyInterceptor)
    class Handler {
      @MessagePattern('test.one.v1')
      one(@RpcCaller() caller: unknown, @Payload() body: unknown, @Payload('payload') payload: unknown) {
        return { caller, body, payload };
      }
    }
    const [handler, ...others] = await discover(Handler);
    expect(others).toEqual([]);
    expect(handler).toMatchObject({ subject: 'test.one.v1', controller: Handler });
    const data = { caller: { user_id: 'u1' }, payload: { x: 1 } };
    expect(new RpcArgumentContext(handler!, data).arguments()).toEqual([data.caller, data, data.payload]);
  });

  it.each([
    [
      'without RpcReplyInterceptor',
      () => {
        @Controller()
        class Handler {
          @MessagePattern('test.bare.v1')
          bare() {}
        }
        return Handler;
      },
      /must use RpcReplyInterceptor/,
    ],
    [
      'with a guard',
      () => {
        @Controller()
        @UseInterceptors(RpcReplyInterceptor)
        @UseGuards(AllowAll)
        class Handler {
          @MessagePattern('test.guarded.v1')
          guarded() {}
        }
        return Handler;
      },
      /guards are not supported/,
    ],
    [
      'with a pipe',
      () => {
        @Controller()
        @UseInterceptors(RpcReplyInterceptor)
        class Handler {
          @MessagePattern('test.piped.v1')
          @UsePipes(AllowAll)
          piped() {}
        }
        return Handler;
      },
      /pipes are not supported/,
    ],
    [
      'for an event pattern',
      () => {
        @Controller()
        @UseInterceptors(RpcReplyInterceptor)
        class Handler {
          @EventPattern('test.event.v1')
          event(_data: unknown) {}
        }
        return Handler;
      },
      /only @MessagePattern/,
    ],
  ])('stops the start for a handler %s', async (_what, build, message) => {
    await expect(discover(build())).rejects.toThrow(message);
  });
});
