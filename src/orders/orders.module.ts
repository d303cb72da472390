import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { Clock } from '../config/clock';
import { ReadReplicasModule } from '../database/read-replicas.module';
import { IdempotencyModule } from '../idempotency/idempotency.module';
import { RecentWriters, recentWritersFor } from '../pets/application/recent-writers';
import { OpenOrderCaps } from './application/open-order-caps';
import { OrderExpiry } from './application/order-expiry';
import { OrdersService } from './application/orders.service';
import { OrderRepository } from './domain/order.repository';
import { OrdersController } from './http/orders.controller';
import { OrderOrmEntity } from './infrastructure/order.orm-entity';
import { TypeOrmOrderRepository } from './infrastructure/typeorm-order.repository';

/** Selling: an account's orders of pets, beyond the specification (decisions, "Selling"). */
@Module({
  imports: [TypeOrmModule.forFeature([OrderOrmEntity]), ReadReplicasModule, IdempotencyModule],
  controllers: [OrdersController],
  providers: [
    OrdersService,
    OpenOrderCaps,
    OrderExpiry,
    { provide: OrderRepository, useClass: TypeOrmOrderRepository },
    {
      // An account that changed an order reads the latest for as long as a replica in service may lack the change.
      provide: RecentWriters,
      inject: [AppConfig, Clock],
      useFactory: recentWritersFor,
    },
  ],
})
export class OrdersModule {}
