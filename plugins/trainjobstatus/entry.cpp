// The plugin's one exported symbol.
#include "trainjobstatus.hpp"

TRAINER_PLUGIN(trainer::plugins::trainjobstatus::TrainJobStatusPlugin)
