/** A capacity search's result in words (kept for `run show` and the sweep): serving's capacityLine. */
export { capacityLine, levelText } from '@kerneltune/serving'
