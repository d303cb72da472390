process.env.TEST_STORE = 'sqlite';
