#include "core/workset.h"
#include "util/banned.h"
