#include "jobset.hpp"

TRAINER_PLUGIN(trainer::plugins::jobset::JobSet)
