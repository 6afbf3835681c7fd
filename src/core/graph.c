#include "core/graph.h"
#include "util/banned.h"
