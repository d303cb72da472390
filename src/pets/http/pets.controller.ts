import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RouteSchema } from '@nestjs/platform-fastify';
import { AppConfig } from '../../config/app-config';
import { PetsService } from '../application/pets.service';
import { Pet } from '../domain/pet';
import { ParseIdPipe } from '../../http/validation';
import { requestOrigin } from '../../http/request-origin';
import { CreatePetDto } from './dto/create-pet.dto';
import { ListPetsQuery, ParseListPetsQueryPipe } from './dto/list-pets.query';
import { decodeCursor, encodeCursor } from './pet-cursor';
import { CREATED_PET_RESPONSE_SCHEMA, PET_RESPONSE_SCHEMA, PETS_RESPONSE_SCHEMA, toPetResponse } from './pet.response';

@Controller({ path: 'pets', version: '1' })
export class PetsController {
  constructor(
    private readonly pets: PetsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @RouteSchema({ response: PETS_RESPONSE_SCHEMA })
  async listPets(
    // An interface, not a class: the global ValidationPipe leaves it to ParseListPetsQueryPipe.
    @Query(ParseListPetsQueryPipe) query: ListPetsQuery,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Pet[]> {
    const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = await this.pets.list({ limit: query.limit, status: query.status, afterId });
    if (page.nextAfterId !== undefined) {
      const next = new URLSearchParams({ limit: String(query.limit) });
      if (query.status) next.set('status', query.status);
      next.set('cursor', encodeCursor(page.nextAfterId));
      reply.header('Link', `<${requestOrigin(request.raw, this.config.trustProxy)}/v1/pets?${next}>; rel="next"`);
    }
    return page.pets.map(toPetResponse);
  }

  @Post()
  @HttpCode(201)
  @RouteSchema({ response: CREATED_PET_RESPONSE_SCHEMA })
  async createPet(@Body() body: CreatePetDto): Promise<Pet> {
    return toPetResponse(await this.pets.create(body));
  }

  /** Deprecated: its headers come from an onRequest hook (deprecation-headers.hook.ts), so errors carry them too. */
  @Get(':petId')
  @RouteSchema({ response: PET_RESPONSE_SCHEMA })
  async getPet(@Param('petId', ParseIdPipe) petId: number): Promise<Pet> {
    return toPetResponse(await this.pets.get(petId));
  }
}
