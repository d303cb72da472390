import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { CallerLookup } from '../../auth/application/caller-lookup';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import { callerOf } from '../../http/request-context';
import { IdempotencyService } from '../../idempotency/application/idempotency.service';
import { requestOrigin } from '../../http/request-origin';
import { ParseIdPipe } from '../../http/validation';
import { OpsMetrics } from '../../ops/metrics';
import { PetsService } from '../application/pets.service';
import { Pet } from '../domain/pet';
import { CreatePetDto } from './dto/create-pet.dto';
import { ListPetsQueryDto } from './dto/list-pets.query.dto';
import { ID_SCHEMA, PetResponseDto } from './dto/pet.response.dto';
import { DEPRECATION_RESPONSE_HEADERS, GET_PET_SUNSET } from './deprecation-headers.hook';
import { decodeCursor, encodeCursor } from './pet-cursor';

const IDEMPOTENCY_KEY = 'Idempotency-Key';
const REPLAYED_HEADERS = {
  'Idempotent-Replayed': {
    description: 'Present, `true`, when this is the stored answer to an earlier request with the same `Idempotency-Key` and body',
    schema: { type: 'string', enum: ['true'] },
  },
};

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
    private readonly metrics: OpsMetrics,
    private readonly idempotency: IdempotencyService,
    private readonly callers: CallerLookup,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listPets', summary: 'List pets', description: 'A page of pets ordered by id.' })
  @ApiStandardResponses({
    success: { status: 200, description: 'A page of pets', type: [PetResponseDto], headers: NEXT_PAGE_HEADERS },
  })
  async listPets(
    @Query() query: ListPetsQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Pet[]> {
    const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const page = await this.pets.list({ limit: query.limit, status: query.status, afterId });
    if (page.nextAfterId !== undefined) {
      const next = new URLSearchParams({ limit: String(query.limit) });
      if (query.status) next.set('status', query.status);
      next.set('cursor', encodeCursor(page.nextAfterId));
      reply.header('link', `<${requestOrigin(request.raw, this.config.trustProxy)}/v1/pets?${next}>; rel="next"`);
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
  @ApiHeader({
    name: IDEMPOTENCY_KEY,
    required: false,
    description: 'Makes the create safe to retry; scoped to the API key. 1 to 255 printable ASCII characters, e.g. a UUID.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  })
  @ApiStandardResponses({
    success: { status: 201, description: 'The pet as stored, with its id', type: PetResponseDto, headers: REPLAYED_HEADERS },
    errors: [409, 413, 415, 422],
  })
  async createPet(
    @Body() body: CreatePetDto,
    @Headers(IDEMPOTENCY_KEY.toLowerCase()) idempotencyKey: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Pet> {
    // The auth guard let the request in, so it has a caller; its key scopes the Idempotency-Key.
    const caller = (await callerOf(request, this.callers))!;
    const outcome = await this.idempotency.perform({ apiKeyId: caller.keyId, key: idempotencyKey, payload: request.body }, async () => {
      const pet = await this.pets.create(body);
      this.metrics.countPetCreated();
      return { status: 201, body: pet };
    });
    if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
    reply.status(outcome.status);
    return outcome.body;
  }

  /** Deprecated: its headers come from an onRequest hook (deprecation-headers.hook.ts), so errors carry them too. */
  @Get(':petId')
  @ApiOperation({
    operationId: 'getPet',
    summary: 'Get a pet',
    deprecated: true,
    description: `Deprecated: removed on 5 December 2030 (${GET_PET_SUNSET}). Use \`GET /pets\` with the \`status\` filter instead.`,
  })
  @ApiParam({ name: 'petId', schema: ID_SCHEMA, description: 'The id of the pet' })
  @ApiStandardResponses({
    success: { status: 200, description: 'The pet', type: PetResponseDto },
    errors: [404],
    headers: DEPRECATION_RESPONSE_HEADERS,
  })
  getPet(@Param('petId', ParseIdPipe) petId: number): Promise<Pet> {
    return this.pets.get(petId);
  }
}
