#include "poplar_sim/popops/expr_types.h"

namespace poplar_sim {
namespace popops {

std::string unaryOpName(UnaryOpType op) {
  static const char* kNames[] = {
      "ABSOLUTE", "CEIL",   "COS",     "EXPONENT", "FLOOR",   "INVERSE",
      "LOGARITHM", "LOGICAL_NOT", "NEGATE", "RELU", "RSQRT", "SIGMOID",
      "SIGNUM",   "SIN",    "SQRT",    "SQUARE",   "TANH"};
  return kNames[static_cast<int>(op)];
}

std::string binaryOpName(BinaryOpType op) {
  static const char* kNames[] = {
      "ADD", "SUBTRACT", "MULTIPLY", "DIVIDE", "POWER", "MAXIMUM", "MINIMUM",
      "REMAINDER", "EQUAL", "NOT_EQUAL", "LESS_THAN", "LESS_THAN_EQUAL",
      "GREATER_THAN", "GREATER_THAN_EQUAL", "LOGICAL_AND", "LOGICAL_OR",
      "RELU_GRAD", "SIGMOID_GRAD", "TANH_GRAD"};
  return kNames[static_cast<int>(op)];
}

namespace {
bool IsTranscendental(UnaryOpType op) {
  switch (op) {
    case UnaryOpType::COS: case UnaryOpType::EXPONENT:
    case UnaryOpType::LOGARITHM: case UnaryOpType::RSQRT:
    case UnaryOpType::SIGMOID: case UnaryOpType::SIN: case UnaryOpType::SQRT:
    case UnaryOpType::TANH: case UnaryOpType::INVERSE:
      return true;
    default:
      return false;
  }
}
}  // namespace

bool supportsUnary(UnaryOpType op, Type t) {
  if (t == BOOL) return op == UnaryOpType::LOGICAL_NOT;
  if (op == UnaryOpType::LOGICAL_NOT) return false;
  if (t == FLOAT || t == HALF) return true;
  if (t == INT) {
    return op == UnaryOpType::ABSOLUTE || op == UnaryOpType::NEGATE ||
           op == UnaryOpType::SIGNUM || op == UnaryOpType::SQUARE ||
           op == UnaryOpType::RELU;
  }
  if (t == UNSIGNED_INT) return op == UnaryOpType::SQUARE;
  return false;
}

bool supportsBinary(BinaryOpType op, Type t) {
  const bool logical =
      op == BinaryOpType::LOGICAL_AND || op == BinaryOpType::LOGICAL_OR;
  if (t == BOOL) {
    return logical || op == BinaryOpType::EQUAL || op == BinaryOpType::NOT_EQUAL;
  }
  if (logical) return false;
  if (t == FLOAT || t == HALF) return true;
  if (t == INT || t == UNSIGNED_INT) {
    return op != BinaryOpType::POWER && op != BinaryOpType::SIGMOID_GRAD &&
           op != BinaryOpType::TANH_GRAD;
  }
  // 64-bit integers: counters only (a global step), as the vendor's
  // libraries emulate them with pairs of 32-bit words.
  if (t == LONGLONG) {
    return op == BinaryOpType::ADD || op == BinaryOpType::SUBTRACT ||
           op == BinaryOpType::EQUAL || op == BinaryOpType::NOT_EQUAL;
  }
  return false;
}

Type unaryOutputType(UnaryOpType op, Type in) {
  return op == UnaryOpType::LOGICAL_NOT ? BOOL : in;
}

Type binaryOutputType(BinaryOpType op, Type in) {
  switch (op) {
    case BinaryOpType::EQUAL: case BinaryOpType::NOT_EQUAL:
    case BinaryOpType::LESS_THAN: case BinaryOpType::LESS_THAN_EQUAL:
    case BinaryOpType::GREATER_THAN: case BinaryOpType::GREATER_THAN_EQUAL:
    case BinaryOpType::LOGICAL_AND: case BinaryOpType::LOGICAL_OR:
      return BOOL;
    default:
      return in;
  }
}

// [ASSUMPTION] Simple ops issue one vector instruction per cycle;
// division and square roots take several; transcendental functions use a
// short polynomial. No public per-op figures exist.
unsigned unaryCyclesPerVector(UnaryOpType op) {
  return IsTranscendental(op) ? 8 : 1;
}

unsigned binaryCyclesPerVector(BinaryOpType op) {
  switch (op) {
    case BinaryOpType::DIVIDE: case BinaryOpType::REMAINDER: return 6;
    case BinaryOpType::POWER: return 16;
    case BinaryOpType::SIGMOID_GRAD: case BinaryOpType::TANH_GRAD: return 3;
    default: return 1;
  }
}

}  // namespace popops
}  // namespace poplar_sim
