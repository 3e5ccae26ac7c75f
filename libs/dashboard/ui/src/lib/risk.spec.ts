import type { RouteRiskDto } from '@arrbiter/contracts';
import { ConfirmService } from './confirm.service';
import { confirmGrant, riskLabel } from './risk';

const risk = (sensitive: boolean, destructive: boolean, reason = 'Why.'): RouteRiskDto => ({
  sensitive,
  destructive,
  purpose: 'system',
  reason,
});

describe('confirmGrant', () => {
  it('grants at once when no call is sensitive or destructive', async () => {
    const confirm = new ConfirmService();
    await expect(confirmGrant(confirm, [{ label: 'GET /api/v3/movie', risk: risk(false, false) }])).resolves.toBe(true);
    expect(confirm.pending()).toBeNull();
  });

  it('asks, naming each risky call with its label and reason, and answers what the admin chose', async () => {
    const confirm = new ConfirmService();
    const answer = confirmGrant(confirm, [
      { label: 'GET /api/v3/movie', risk: null },
      { label: 'GET /api/v3/system/backup', risk: risk(true, false, 'Backups hold every secret.') },
      { label: 'DELETE /api/v3/movie/{id}', risk: risk(false, true, 'Removes things.') },
    ]);
    expect(confirm.pending()).toMatchObject({
      title: 'Grant 2 sensitive or destructive calls?',
      items: [
        'GET /api/v3/system/backup (Sensitive): Backups hold every secret.',
        'DELETE /api/v3/movie/{id} (Destructive): Removes things.',
      ],
      danger: true,
    });
    confirm.answer(false);
    await expect(answer).resolves.toBe(false);
  });

  it('labels a risk in words', () => {
    expect(riskLabel(risk(true, true))).toBe('Sensitive, destructive');
    expect(riskLabel(risk(false, false))).toBeNull();
  });
});
