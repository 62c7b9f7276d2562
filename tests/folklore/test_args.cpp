// The folklore examples' command line (examples/folklore/args.hpp), on the host: options take the
// word after them, flags stand alone, and anything else, or an option given last without its
// value, is a usage error, as each example read its arguments by hand before.
#include "catch.hpp"

#include <initializer_list>
#include <string>
#include <vector>

#include "args.hpp"

namespace {

// argv as a program gets it: the program's name first.
struct command_line {
  std::vector<std::string> words;
  std::vector<char*> argv;
  command_line(std::initializer_list<const char*> args) : words{"example"} {
    words.insert(words.end(), args.begin(), args.end());
    for (std::string& w : words) argv.push_back(w.data());
  }
  command_line(const command_line&) = delete;  // argv points into this one's words
  int argc() const { return int(argv.size()); }
};

struct folklore_options {
  const char* json = nullptr;
  bool prewarm = false;
  bool read(command_line c) {
    return folklore::args{}.option("--json", json).flag("--prewarm", prewarm).read(c.argc(), c.argv.data());
  }
};

}  // namespace

TEST_CASE("args: nothing given leaves every variable as it was") {
  folklore_options o;
  CHECK(o.read({}));
  CHECK(o.json == nullptr);
  CHECK_FALSE(o.prewarm);
}

TEST_CASE("args: an option takes the next word, a flag stands alone, in any order") {
  folklore_options o;
  CHECK(o.read({"--prewarm", "--json", "out.json"}));
  CHECK(std::string(o.json) == "out.json");
  CHECK(o.prewarm);
  folklore_options p;
  CHECK(p.read({"--json", "--prewarm"}));  // the word after an option is its value, whatever it looks like
  CHECK(std::string(p.json) == "--prewarm");
  CHECK_FALSE(p.prewarm);
}

TEST_CASE("args: given twice, the last value counts") {
  folklore_options o;
  CHECK(o.read({"--json", "a.json", "--json", "b.json"}));
  CHECK(std::string(o.json) == "b.json");
}

TEST_CASE("args: an unknown word, a value without its option, or an option without its value is refused") {
  CHECK_FALSE(folklore_options{}.read({"--jsn", "out.json"}));
  CHECK_FALSE(folklore_options{}.read({"out.json"}));
  CHECK_FALSE(folklore_options{}.read({"--json"}));
  CHECK_FALSE(folklore_options{}.read({"--prewarm", "--json"}));
  CHECK_FALSE(folklore_options{}.read({"--prewarm=1"}));
  CHECK_FALSE(folklore_options{}.read({"--PREWARM"}));  // names match exactly
}

TEST_CASE("args: a number is read in decimal, 0 where it is none; strings are copied") {
  long batch = 32;
  std::string device = "cuda";
  bool first = false;
  const auto read = [&](command_line c) {
    return folklore::args{}
        .option("--batch", batch)
        .option("--device", device)
        .flag("--context-first", first)
        .read(c.argc(), c.argv.data());
  };
  CHECK(read({"--batch", "512", "--device", "cpu"}));
  CHECK(batch == 512);
  CHECK(device == "cpu");
  CHECK_FALSE(first);
  CHECK(read({"--batch", "010"}));
  CHECK(batch == 10);  // decimal, not octal
  CHECK(read({"--batch", "many"}));
  CHECK(batch == 0);  // the program refuses a count not above 0
  CHECK(read({"--batch", "-3", "--context-first"}));
  CHECK(batch == -3);
  CHECK(first);
  CHECK_FALSE(read({"--batch"}));
}
