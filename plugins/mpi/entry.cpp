// The plugin's one exported symbol.
#include "mpi.hpp"

TRAINER_PLUGIN(trainer::plugins::mpi::MpiPlugin)
