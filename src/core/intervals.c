#include "core/intervals.h"
#include "util/banned.h"
