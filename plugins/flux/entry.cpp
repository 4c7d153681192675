// The plugin's one exported symbol.
#include "flux.hpp"

TRAINER_PLUGIN(trainer::plugins::flux::FluxPlugin)
