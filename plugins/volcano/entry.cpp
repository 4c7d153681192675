// The plugin's one exported symbol.
#include "volcano.hpp"

TRAINER_PLUGIN(trainer::plugins::volcano::Volcano)
