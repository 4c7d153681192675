#include "torch.hpp"

TRAINER_PLUGIN(trainer::plugins::torch::Torch)
