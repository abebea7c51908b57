/** The capacity mix's reference bars on twitter_stream_2021_08_per_minute.csv (./mix-reference.ts has them and why). */
import { mixReferenceSuite } from './mix-reference.ts';

mixReferenceSuite('twitter_stream_2021_08_per_minute.csv');
