#include "stats.h"

int average(const int *values, size_t count) {
    if (count == 0) return 0;
    long sum = 0;
    for (size_t i = 0; i < count; i++) sum += values[i];
    return sum / count;
}

int maximum(const int *values, size_t count) {
    int best = values[0];
    for (size_t i = 1; i < count; i++)
        if (values[i] > best) best = values[i];
    return best;
}
