export { PrometheusMetrics } from './prometheus-metrics.js';
