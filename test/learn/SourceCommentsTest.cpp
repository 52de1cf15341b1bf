// stripComments: what the ranking model's token path reads of a source (docs/ranking.md).
#include "cudaperf/Learn/SourceComments.h"

#include <gtest/gtest.h>

using cudaperf::learn::stripComments;

TEST(SourceComments, LineAndBlockCommentsGoCodeStays) {
  EXPECT_EQ(stripComments("// entry: void f()\n// Deliberately slow.\n#include <cuda_runtime.h>\n"),
            "#include <cuda_runtime.h>\n");
  EXPECT_EQ(stripComments("int x; // one value per block\nint y;\n"), "int x;\nint y;\n");
  EXPECT_EQ(stripComments("a = b /* the tree */ + c;\n"), "a = b + c;\n");
  EXPECT_EQ(stripComments("a = b/**/+c;"), "a = b +c;");
  EXPECT_EQ(stripComments("  /* a comment\n     on two lines */\n  x();\n"), "  x();\n");
  EXPECT_EQ(stripComments("f(); /* spans\n lines */ g();\n"), "f(); g();\n");
  EXPECT_EQ(stripComments("  /* lead */ x();\n"), "  x();\n");
  EXPECT_EQ(stripComments("x(); // a\r\ny();\r\n"), "x();\ny();\r\n");
}

TEST(SourceComments, LiteralsAreNotComments) {
  EXPECT_EQ(stripComments("extern \"C\" void f(); // entry\n"), "extern \"C\" void f();\n");
  EXPECT_EQ(stripComments("s = \"// not a comment /* nor this */\";"), "s = \"// not a comment /* nor this */\";");
  EXPECT_EQ(stripComments("s = \"a \\\" // still inside\"; // gone"), "s = \"a \\\" // still inside\";");
  EXPECT_EQ(stripComments("c = '\"'; d = '/'; // x"), "c = '\"'; d = '/';");
  EXPECT_EQ(stripComments("c = '\\''; /* x */ e = 1;"), "c = '\\''; e = 1;");
  EXPECT_EQ(stripComments("p = R\"x(// inside )\" /* too */)x\"; // out"), "p = R\"x(// inside )\" /* too */)x\";");
  EXPECT_EQ(stripComments("p = u8R\"(/*)\"; q = L\"//\";"), "p = u8R\"(/*)\"; q = L\"//\";");
  // Digit separators are not character literals: the comment after them still goes.
  EXPECT_EQ(stripComments("n = 1'000'000; // a million\nm = 0x1'f;"), "n = 1'000'000;\nm = 0x1'f;");
}

TEST(SourceComments, ContinuationsAndUnterminatedText) {
  // A backslash at the end of a // comment's line continues the comment (translation phase 2).
  EXPECT_EQ(stripComments("a(); // one \\\n still the comment\nb();\n"), "a();\nb();\n");
  EXPECT_EQ(stripComments("a(); /* never closed\n b();"), "a();");
  EXPECT_EQ(stripComments("s = \"never closed\nb(); // c\n"), "s = \"never closed\nb();\n");
  EXPECT_EQ(stripComments("x = a / b / c; // divisions\n"), "x = a / b / c;\n");
  EXPECT_EQ(stripComments(""), "");
  EXPECT_EQ(stripComments("//"), "");
  EXPECT_EQ(stripComments("/"), "/");
}
