/**
 * Reads of objects that are not in the content bucket (yet), as S3 answers them on AWS: without
 * `s3:ListBucket` a missing key is 403 AccessDenied, not 404, and the local grants check answers
 * the same (local/lambda/needs.ts). Each route that tells a missing object by its 404 must
 * still answer as documented. (An import of an upload never made: test/api/contact-imports.test.ts;
 * a received body the lifecycle removed: test/api/received-bodies.test.ts.)
 */
import { api } from '../support/http';
import { verifiedDomain } from '../support/domains';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();

it('lists the attachments of a scheduled email before its path attachment is fetched, the size unknown', async () => {
  const { key } = await createOtherProject();
  const domain = await verifiedDomain(key, 'later');
  const sent = await api.post(
    '/emails',
    {
      from: `news@${domain}`,
      to: ['reader@example.com'],
      subject: 'Tomorrow',
      text: 'See the attachment.',
      scheduled_at: new Date(Date.now() + 24 * 60 * 60 * 1000).toISOString(),
      attachments: [{ path: 'http://127.0.0.1:9/report.pdf', filename: 'report.pdf' }],
    },
    { key },
  );
  expect(sent.status).toBe(200);

  const listed = await api.get(`/emails/${sent.body.id}/attachments`, { key });
  expect(listed.status).toBe(200);
  expect(listed.body.data).toEqual([expect.objectContaining({ filename: 'report.pdf', size: null })]);
});
