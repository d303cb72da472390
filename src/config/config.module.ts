import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfig } from './app-config';
import { Clock, SystemClock } from './clock';

@Global()
@Module({
  providers: [
    { provide: AppConfig, useFactory: () => loadConfig() },
    { provide: Clock, useClass: SystemClock },
  ],
  exports: [AppConfig, Clock],
})
export class ConfigModule {}
