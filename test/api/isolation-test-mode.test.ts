/**
 * Isolation between a project's live and test modes, over real HTTP (issue 22): B is a test key of
 * A's own project, and every check of the project suite holds between the modes
 * (test/support/isolation-suite.ts, shared/project/test-mode.ts).
 */
import { isolationSuite } from '../support/isolation-suite';

isolationSuite('test-mode');
