import { DataSource } from 'typeorm';
import { describeOnStore } from './support/describe-store';
import { ormEntityClasses } from './support/orm-entity-files';
import { createTestApp, TestApp } from './support/test-app';

describeOnStore("the modules' entities", () => {
  let testApp: TestApp;

  beforeAll(async () => {
    testApp = await createTestApp();
  });
  afterAll(() => testApp?.close());

  it("are each known to the service's DataSource, registered by their own module's TypeOrmModule.forFeature", () => {
    const dataSource = testApp.app.get(DataSource);
    const entities = ormEntityClasses();
    expect(entities.length).toBeGreaterThanOrEqual(4);
    expect(entities.filter(({ entity }) => !dataSource.hasMetadata(entity)).map(({ file, entity }) => `${file}: ${entity.name}`)).toEqual([]);
    // And no more than those: an entity the DataSource knows lives in a module's *.orm-entity.ts.
    expect(dataSource.entityMetadatas.map((metadata) => metadata.target).filter((target) => !entities.some(({ entity }) => entity === target))).toEqual([]);
  });
});
