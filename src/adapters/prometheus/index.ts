export { PrometheusMetrics, type PrometheusOptions, type QueueDepth } from './prometheus-metrics.js';
