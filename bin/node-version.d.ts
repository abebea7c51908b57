/** Types of bin/node-version.js (plain JavaScript, so that any Node can load it). */
export declare const OLDEST: Readonly<Record<22 | 23, number>>;
export declare function nodeProblem(version: string, typescript: unknown): string | null;
