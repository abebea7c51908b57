/**
 * Which Node can run Governor. Plain JavaScript with no import, so that any Node loads it and
 * says what is wrong in one line instead of failing on a `.ts` file it cannot read.
 *
 * Governor runs its TypeScript on Node's type stripping, on by default since Node 22.18.0 and
 * 23.6.0 (https://nodejs.org/api/typescript.html); nothing else it uses is newer. Node 24 is
 * pinned in package.json (the `node` devDependency), so every npm script and `npx governor` use it.
 */

/** The oldest Node that strips types by default, per major line: [major, minor]. */
export const OLDEST = { 22: 18, 23: 6 };

/**
 * Why `version` (process.versions.node) cannot run Governor, or null when it can. `typescript` is
 * process.features.typescript: false when type stripping is turned off (--no-strip-types).
 * @param {string} version
 * @param {unknown} typescript
 * @returns {string | null}
 */
export function nodeProblem(version, typescript) {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const oldestMinor = OLDEST[/** @type {22 | 23} */ (major)];
  const tooOld = major < 22 || (oldestMinor !== undefined && minor < oldestMinor);
  const fix =
    'run it as "npx governor ..." or "npm run governor -- ..." in the repository after "npm ci", which use the pinned Node 24';
  if (tooOld) return `this is Node ${version}; Governor needs Node 22.18 or later (24 is pinned): ${fix}`;
  if (typescript === false) {
    return `this Node ${version} runs with type stripping turned off (--no-strip-types in NODE_OPTIONS?); Governor needs it: ${fix}`;
  }
  return null;
}
