#ifndef STATS_H
#define STATS_H

#include <stddef.h>

/* The arithmetic mean of `count` values; 0 when there are none. */
double average(const int *values, size_t count);

int maximum(const int *values, size_t count);

#endif
