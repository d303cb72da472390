import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { Clock, SystemClock } from './clock';

/** The configuration, loaded once by whoever starts the service and handed in, and the clock. Global. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
      ],
      exports: [AppConfig, Clock],
    };
  }
}
