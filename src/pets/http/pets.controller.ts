import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiConsumes, ApiNoContentResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../config/app-config';
import { InvalidInputError } from '../../errors/domain/domain-error';
import { INVALID_TRANSITION, NOT_FOUND } from '../../errors/domain/error-code';
import { RequireScope } from '../../auth/http/require-scope.decorator';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import type { KeyCaller } from '../../callers/caller';
import { ConditionalGet } from '../../http/conditional-get';
import { Deprecated, sunsetDate } from '../../http/deprecation';
import { IfMatch, ifMatchCondition, TaggedEntity } from '../../http/entity-tag';
import { AcceptsMergePatch, MERGE_PATCH_JSON } from '../../http/json-body';
import { CurrentCaller } from '../../http/request-context';
import { ownUrl } from '../../http/own-url';
import { ParseIdPipe } from '../../http/validation';
import { Idempotent } from '../../idempotency/http/idempotent.decorator';
import { PetsService } from '../application/pets.service';
import { Pet } from '../domain/pet';
import { PET_RESERVED } from '../domain/pet.errors';
import { CreatePetDto } from './dto/create-pet.dto';
import { changesOf, PatchPetDto } from './dto/patch-pet.dto';
import { ListPetsQueryDto } from './dto/list-pets.query.dto';
import { ID_SCHEMA, PetResponseDto } from './dto/pet.response.dto';
import { PETS_READ, PETS_WRITE } from './pet-scopes';
import { decodeCursor, encodeCursor } from './pet-cursor';

/** `GET /v1/pets/{petId}` goes away on 5 December 2030; `GET /v1/pets` with `status` replaces it. */
const GET_PET_DEPRECATION = { since: '2026-11-21', sunset: '2030-12-05', successor: '/v1/pets' } as const;

const PET_ID_PARAM = { name: 'petId', schema: ID_SCHEMA, description: 'The id of the pet' } as const;
const NO_PET = { code: NOT_FOUND, when: 'no pet with that id' } as const;

const LOCATION_HEADERS = {
  Location: { required: true, description: 'The new pet\'s address, `…/v1/pets/{id}`', schema: { type: 'string', format: 'uri' } },
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
  @TaggedEntity()
  @ApiStandardResponses({ success: { status: 201, description: 'The pet as stored, with its id', type: PetResponseDto, headers: LOCATION_HEADERS } })
  async createPet(
    @Body() body: CreatePetDto,
    @CurrentCaller() caller: KeyCaller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Pet> {
    const pet = await this.pets.create(body, caller.keyId);
    reply.header('Location', ownUrl(this.config, `/v1/pets/${pet.id}`));
    return pet;
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
  @ApiParam(PET_ID_PARAM)
  @ApiStandardResponses({ success: { status: 200, description: 'The pet', type: PetResponseDto }, errors: [NO_PET] })
  getPet(@Param('petId', ParseIdPipe) petId: number, @CurrentCaller() caller: KeyCaller): Promise<Pet> {
    return this.pets.get(petId, caller.keyId);
  }

  @Patch(':petId')
  @ApiOperation({
    operationId: 'updatePet',
    summary: 'Change a pet',
    description:
      'A JSON merge patch (RFC 7396) of `name`, `categoryId` and `status`, each with the rules of a create; at least one, never `null`. ' +
      'A status moves from `available` to `pending` or `sold`, from `pending` to `available` or `sold`; `sold` is final, and the same status changes nothing. ' +
      'A pet held by a placed order keeps its status (its name and category may change). With `If-Match`, only the version it names is changed.',
  })
  @ApiParam(PET_ID_PARAM)
  @ApiConsumes(MERGE_PATCH_JSON, 'application/json')
  @RequireScope(PETS_WRITE)
  @AcceptsMergePatch()
  @TaggedEntity()
  @IfMatch()
  @ApiStandardResponses({
    success: { status: 200, description: 'The pet as it is now', type: PetResponseDto },
    errors: [
      NO_PET,
      { code: INVALID_TRANSITION, when: 'the status cannot move that way (`sold` is final); or `pet_reserved`: a placed order holds the pet, whose status is the order\'s' },
    ],
  })
  updatePet(
    @Param('petId', ParseIdPipe) petId: number,
    @Body() body: PatchPetDto,
    @CurrentCaller() caller: KeyCaller,
    @Req() request: FastifyRequest,
  ): Promise<Pet> {
    const changes = changesOf(body);
    if (!changes) throw new InvalidInputError('A patch must name at least one of name, categoryId, status');
    return this.pets.update(petId, changes, { writer: caller.keyId, precondition: ifMatchCondition(request) });
  }

  @Delete(':petId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deletePet',
    summary: 'Remove a pet',
    description: 'The pet is gone from every page and from the inventory, and its id is never given to another pet. A pet held by a placed order cannot be removed.',
  })
  @ApiParam(PET_ID_PARAM)
  @RequireScope(PETS_WRITE)
  @IfMatch()
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiStandardResponses({ errors: [NO_PET, { code: PET_RESERVED, when: 'a placed order holds the pet' }] })
  async deletePet(@Param('petId', ParseIdPipe) petId: number, @CurrentCaller() caller: KeyCaller, @Req() request: FastifyRequest): Promise<void> {
    await this.pets.remove(petId, { writer: caller.keyId, precondition: ifMatchCondition(request) });
  }
}
