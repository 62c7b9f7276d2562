// No warmup header here: a global object whose constructor and destructor call code that has
// scopes (early_work.cpp), before that file's static initialisation and after main
// (check_flags.py before_main). Linked first, so its constructor runs first.
void early_work(const char* name);

namespace {
struct global_user {
  global_user() { early_work("early.ctor"); }
  ~global_user() { early_work("early.dtor"); }
} the_user;
}  // namespace

int main() {
  early_work("early.main");
  return 0;
}
