/**
 * Preloaded into a benchmarked command (`node --import ./bench/max-rss.ts bin/governor.js ...`):
 * at exit, writes the process's peak resident set (worker threads included) in KB to the file
 * named by GOVERNOR_BENCH_RSS_FILE. Portable where /usr/bin/time -f %M is not (macOS).
 */
import { writeFileSync } from 'node:fs';

const file = process.env.GOVERNOR_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
