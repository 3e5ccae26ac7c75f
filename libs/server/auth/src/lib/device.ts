import Bowser from 'bowser';

/** A session's device as a person names it, from its User-Agent: "Firefox 140 on Linux"; null when unknown. */
export function describeDevice(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const { browser, os } = Bowser.parse(userAgent);
  const name = browser.name ? [browser.name, browser.version?.split('.')[0]].filter(Boolean).join(' ') : undefined;
  const system = os.name ? [os.name, os.versionName].filter(Boolean).join(' ') : undefined;
  if (name && system) return `${name} on ${system}`;
  return name ?? system ?? userAgent.slice(0, 64);
}
