/** The capacity mix's reference bars on nasa_http_1995_jul_per_minute.csv (./mix-reference.ts has them and why). */
import { mixReferenceSuite } from './mix-reference.ts';

mixReferenceSuite('nasa_http_1995_jul_per_minute.csv');
