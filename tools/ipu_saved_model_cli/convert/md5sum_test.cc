#include "tools/ipu_saved_model_cli/convert/md5sum.h"

#include <string>

#include "gtest/gtest.h"

namespace tensorflow_ipu {
namespace saved_model_cli {
namespace {

// The test suite of RFC 1321, appendix A.5.
TEST(Md5sumTest, Rfc1321TestSuite) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "d41d8cd98f00b204e9800998ecf8427e"},
      {"a", "0cc175b9c0f1b6a831c399e269772661"},
      {"abc", "900150983cd24fb0d6963f7d28e17f72"},
      {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
      {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
      {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
       "d174ab98d277d9f5a5611c2c9f419d9f"},
      {"12345678901234567890123456789012345678901234567890123456789012345678901234567890",
       "57edf4a22be3c955ac49da2e2107b67a"},
  };
  for (const auto& [input, digest] : cases) {
    absl::StatusOr<std::string> md5 = Md5Hex(input);
    ASSERT_TRUE(md5.ok()) << md5.status();
    EXPECT_EQ(*md5, digest) << "'" << input << "'";
  }
}

TEST(Md5sumTest, BinaryDataWithZeros) {
  absl::StatusOr<std::string> md5 = Md5Hex(std::string("\0\1\2", 3));
  ASSERT_TRUE(md5.ok()) << md5.status();
  EXPECT_EQ(md5->size(), 32u);
}

}  // namespace
}  // namespace saved_model_cli
}  // namespace tensorflow_ipu
