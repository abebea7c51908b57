/**
 * The young generation of the worker threads the suite and `governor tune` start.
 * A worker's new space defaults to 64 MB where the main thread's is 32 MB; the simulators' garbage
 * is small objects that die within a minute of simulated time, so a new space that large mostly
 * walks allocation through memory that has left the caches, and holds up to 192 MB of young
 * generation per thread. Capped at the main thread's size, measured with whole processes paired
 * against the default (farm-bench, 3 pairs, medians, 2-core machine, November 2026): `governor
 * tune` on NASA (300 candidates, 2 workers) 1.12-1.19x faster in wall time, 1.16-1.25x in CPU,
 * peak memory 510-536 to 346-358 MB, the same file; a year of minutes' tune (8 candidates) peak
 * 1,019 to 677 MB; `npm run suite` as fast (0.99x, 4 pairs), peak 662 to 479 MB. 8 MB was slower
 * than the default, 16 and 48 no better than 32. The backtest's forecast thread keeps the default:
 * its heap is small, and NASA's backtest measured the same either way (1.00x, 6 pairs).
 *
 * The old generation is left unbounded. Tune's workers were capped at 128 MB plus 0.4 KB a minute
 * of training, so that garbage promoted early out of the large young generation would be
 * collected before it took a year's tune to 1.15 GB; with the young generation capped, little is
 * promoted, and the cap only cost time: without it NASA's tune 0.91x the wall time (0.87x CPU, 3
 * pairs) and Twitter's 0.91x (0.89x CPU, 4 pairs), the same files, at peaks of 421 and 396 MB
 * against 351 and 313; a year's tune peaked at 711 MB against 677.
 */
export const WORKER_YOUNG_GENERATION_MB = 32;
