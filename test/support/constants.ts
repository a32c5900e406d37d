/** The key the test runtime provisions through LOCAL_API_KEY (a live key of the default project). */
export const TEST_API_KEY = 'es_live_TestKey0000000000000000000000000';
