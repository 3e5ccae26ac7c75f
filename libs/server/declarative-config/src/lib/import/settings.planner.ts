import { Inject, Injectable } from '@nestjs/common';
import { SETTINGS_SECTIONS, SettingsSection } from '../settings-sections';
import type { PlanContext, WriteContext } from './import-plan';

/** The settings sections whose values the document changes. */
export interface SettingsPlan {
  readonly writes: { section: SettingsSection; value: unknown }[];
}

/** The document's `settings`, each section checked, compared and written through its owner. */
@Injectable()
export class SettingsPlanner {
  constructor(@Inject(SETTINGS_SECTIONS) private readonly sections: readonly SettingsSection[]) {}

  async plan({ document, options, report, problems }: PlanContext): Promise<SettingsPlan> {
    const plan: SettingsPlan = { writes: [] };
    for (const section of this.sections) {
      const wanted = document.settings?.[section.key];
      if (wanted === undefined) continue;
      problems.push(
        ...(await section.problems(wanted as never, options.operator)).map((p) => `settings.${section.key}: ${p}`),
      );
      const changes = section.changes((await section.read(true)) as never, wanted as never);
      if (changes.length === 0) report.unchanged.settings += 1;
      else {
        plan.writes.push({ section, value: wanted });
        report.settings.push({ kind: 'updated', name: section.key, changes });
      }
    }
    return plan;
  }

  async write(plan: SettingsPlan, { actor, operator }: WriteContext): Promise<void> {
    for (const { section, value } of plan.writes) await section.writeInTransaction(value as never, actor, operator);
  }
}
