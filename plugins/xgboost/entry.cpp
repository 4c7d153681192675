#include "xgboost.hpp"

TRAINER_PLUGIN(trainer::plugins::xgboost::XGBoost)
