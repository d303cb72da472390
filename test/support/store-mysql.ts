process.env.TEST_STORE = 'mysql';
