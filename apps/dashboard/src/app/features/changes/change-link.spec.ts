import type { ChangeDto } from '@arrbiter/contracts';
import { changeLink } from './change-link';

describe(changeLink.name, () => {
  const change = (objectType: ChangeDto['objectType'], objectName: string) =>
    ({ objectType, objectName, action: `${objectType}.changed`, objectId: null, appId: null }) as unknown as ChangeDto;

  it('sends every server-wide setting to Settings, the template repository’s included', () => {
    for (const name of ['template-repository', 'notifications', 'proxy-defaults'])
      expect(changeLink(change('settings', name))).toEqual({ commands: ['/settings'] });
    expect(changeLink(change('template', 'overseerr'))).toEqual({ commands: ['/templates'] });
  });
});
