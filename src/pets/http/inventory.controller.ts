import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProperty, ApiSchema, ApiTags } from '@nestjs/swagger';
import { RequireScope } from '../../auth/http/require-scope.decorator';
import { ApiStandardResponses } from '../../docs/api-standard-responses';
import type { KeyCaller } from '../../callers/caller';
import { CurrentCaller } from '../../http/request-context';
import { PetsService } from '../application/pets.service';
import { PetStatus } from '../domain/pet-status';
import { PETS_READ } from './pet-scopes';

const COUNT = { type: 'integer', minimum: 0 } as const;

@ApiSchema({ name: 'Inventory', description: 'How many pets the store has of each status; removed pets are not counted.' })
class InventoryResponseDto implements Record<PetStatus, number> {
  @ApiProperty({ ...COUNT, example: 12 })
  available: number;

  @ApiProperty({ ...COUNT, example: 2 })
  pending: number;

  @ApiProperty({ ...COUNT, example: 40 })
  sold: number;
}

@ApiTags('pets')
@ApiBearerAuth()
@Controller({ path: 'store', version: '1' })
export class InventoryController {
  constructor(private readonly pets: PetsService) {}

  @Get('inventory')
  @RequireScope(PETS_READ)
  @ApiOperation({ operationId: 'getInventory', summary: 'Count pets by status', description: 'Every status is present, 0 when no pet has it.' })
  @ApiStandardResponses({ success: { status: 200, description: 'The count of each status', type: InventoryResponseDto } })
  getInventory(@CurrentCaller() caller: KeyCaller): Promise<Record<PetStatus, number>> {
    return this.pets.inventory(caller.keyId);
  }
}
