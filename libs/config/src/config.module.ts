import { Global, Module, type DynamicModule } from '@nestjs/common';

/** The validated configuration, loaded once in main.ts and injected by its class. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: object): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: config.constructor, useValue: config }], exports: [config.constructor] };
  }
}
