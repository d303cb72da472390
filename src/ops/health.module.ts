import { type DynamicModule, type InjectionToken, Module, type ModuleMetadata } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { ReadinessCheck } from './readiness';
import { READINESS_CHECKS, ReadinessService } from './readiness.service';

/** The checks `/readyz` runs besides the database: each module exports its own under a token, and the application lists the tokens here. */
export interface HealthModuleOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly checks: readonly InjectionToken[];
}

/** `/healthz` and `/readyz` on @nestjs/terminus. */
@Module({})
export class HealthModule {
  static forRoot({ imports = [], checks }: HealthModuleOptions): DynamicModule {
    return {
      module: HealthModule,
      // Terminus would log every failing poll; ReadinessService logs each change of state instead.
      imports: [TerminusModule.forRoot({ logger: false }), ...imports],
      controllers: [HealthController],
      providers: [
        ReadinessService,
        { provide: READINESS_CHECKS, inject: [...checks], useFactory: (...groups: ReadinessCheck[][]) => groups.flat() },
      ],
    };
  }
}
