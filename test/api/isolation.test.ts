/** Tenant isolation between two projects, over real HTTP: test/support/isolation-suite.ts. */
import { isolationSuite } from '../support/isolation-suite';

isolationSuite('project');
