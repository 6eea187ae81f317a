// Types of scripts/chromium.mjs.
import type { Browser } from 'playwright-core'
export const CHROMIUM: string
export const CHROMIUM_ARGS: string[]
export function launchChromium(extraArgs?: string[]): Promise<Browser>
