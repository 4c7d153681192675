// The plugin's one exported symbol.
#include "coscheduling.hpp"

TRAINER_PLUGIN(trainer::plugins::coscheduling::Coscheduling)
