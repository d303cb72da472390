import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { NOT_FOUND } from '../../errors/error-code';
import { RequireScope } from '../../auth/http/require-scope.decorator';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import type { KeyCaller } from '../../http/caller';
import { ConditionalGet } from '../../http/conditional-get';
import { Deprecated, sunsetDate } from '../../http/deprecation';
import { CurrentCaller } from '../../http/request-context';
import { ownUrl } from '../../http/own-url';
import { ParseIdPipe } from '../../http/validation';
import { Idempotent } from '../../idempotency/http/idempotent.decorator';
import { PetsService } from '../application/pets.service';
import { Pet } from '../domain/pet';
import { CreatePetDto } from './dto/create-pet.dto';
import { ListPetsQueryDto } from './dto/list-pets.query.dto';
import { ID_SCHEMA, PetResponseDto } from './dto/pet.response.dto';
import { PETS_READ, PETS_WRITE } from './pet-scopes';
import { decodeCursor, encodeCursor } from './pet-cursor';

/** `GET /v1/pets/{petId}` goes away on 5 December 2030; `GET /v1/pets` with `status` replaces it. */
const GET_PET_DEPRECATION = { since: '2026-11-21', sunset: '2030-12-05', successor: '/v1/pets' } as const;

const NEXT_PAGE_HEADERS = {
  Link: {
    description: 'RFC 8288: `<…/v1/pets?limit=…&status=…&cursor=…>; rel="next"` while more pets follow; absent on the last page',
    schema: { type: 'string', pattern: '^<[^>]+>; rel="next"$' },
  },
};

@ApiTags('pets')
@ApiBearerAuth()
@Controller({ path: 'pets', version: '1' })
export class PetsController {
  constructor(
    private readonly pets: PetsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @RequireScope(PETS_READ)
  @ConditionalGet()
  @ApiOperation({ operationId: 'listPets', summary: 'List pets', description: 'A page of pets ordered by id.' })
  @ApiStandardResponses({ success: { status: 200, description: 'A page of pets', type: [PetResponseDto], headers: NEXT_PAGE_HEADERS } })
  async listPets(
    @Query() query: ListPetsQueryDto,
    @CurrentCaller() caller: KeyCaller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Pet[]> {
    const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    // By key, so a key that just created a pet finds it in its list (see PetsService).
    const page = await this.pets.list({ limit: query.limit, status: query.status, afterId }, caller.keyId);
    if (page.nextAfterId !== undefined) {
      const next = new URLSearchParams({ limit: String(query.limit) });
      if (query.status) next.set('status', query.status);
      next.set('cursor', encodeCursor(page.nextAfterId));
      reply.header('Link', `<${ownUrl(this.config, `/v1/pets?${next}`)}>; rel="next"`);
    }
    return page.pets;
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createPet',
    summary: 'Add a pet',
    description:
      'The body is a JSON object sent as `application/json`; unknown fields are refused. `status` defaults to `available`. ' +
      'With an `Idempotency-Key`, a retry with the same key and body within `IDEMPOTENCY_TTL_SECONDS` gets the first answer again instead of a second pet. ' +
      'The pet and that answer are stored together or not at all, so this holds through a crash of the service: ' +
      'retried until it gets a 201, a create stores exactly one pet.',
  })
  @RequireScope(PETS_WRITE)
  @Idempotent()
  @ApiStandardResponses({ success: { status: 201, description: 'The pet as stored, with its id', type: PetResponseDto } })
  createPet(@Body() body: CreatePetDto, @CurrentCaller() caller: KeyCaller): Promise<Pet> {
    return this.pets.create(body, caller.keyId);
  }

  @Get(':petId')
  @RequireScope(PETS_READ)
  @ConditionalGet()
  @Deprecated(GET_PET_DEPRECATION)
  @ApiOperation({
    operationId: 'getPet',
    summary: 'Get a pet',
    description: `Deprecated: removed on 5 December 2030 (${sunsetDate(GET_PET_DEPRECATION)}). Use \`GET /pets\` with the \`status\` filter instead.`,
  })
  @ApiParam({ name: 'petId', schema: ID_SCHEMA, description: 'The id of the pet' })
  @ApiStandardResponses({ success: { status: 200, description: 'The pet', type: PetResponseDto }, errors: [{ status: 404, code: NOT_FOUND, when: 'no pet with that id' }] })
  getPet(@Param('petId', ParseIdPipe) petId: number, @CurrentCaller() caller: KeyCaller): Promise<Pet> {
    return this.pets.get(petId, caller.keyId);
  }
}
